class Plain:
    def method(self):
        return 1


p = Plain()
p.method()
