class Base:
    @staticmethod
    def validate(x):
        return x

    def save(self, x):
        return self.validate(x)


class Child(Base):
    @classmethod
    def build(cls):
        return cls.validate(1)


Child().save(2)
Child.build()
