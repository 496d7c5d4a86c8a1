class A:
    def ping(self):
        return "a"


class B(A):
    pass


class C(B):
    def run(self):
        return self.ping()


C().run()
B().ping()
