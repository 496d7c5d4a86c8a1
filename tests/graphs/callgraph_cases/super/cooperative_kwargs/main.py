class Named:
    def __init__(self, name, **kwargs):
        super().__init__(**kwargs)
        self.name = name


class Aged:
    def __init__(self, age, **kwargs):
        super().__init__(**kwargs)
        self.age = age


class Person(Named, Aged):
    def __init__(self, name, age):
        super().__init__(name=name, age=age)


Person("ada", 36)
