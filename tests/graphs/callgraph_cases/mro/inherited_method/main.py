class Base:
    def helper(self):
        return 1


class Child(Base):
    def work(self):
        return self.helper()


c = Child()
c.work()
c.helper()
