class Base:
    def __init__(self):
        self.ready = True


class Derived(Base):
    def act(self):
        return self.ready


class MoreDerived(Derived):
    pass


MoreDerived().act()
