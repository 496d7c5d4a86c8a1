class Base:
    def __init__(self):
        self.ready = True

    @classmethod
    def create(cls):
        cls.kind()
        return cls()

    @classmethod
    def kind(cls):
        return "base"


class Child(Base):
    def __init__(self):
        super().__init__()

    @classmethod
    def kind(cls):
        return "child"


Base.create()
Child.create()
