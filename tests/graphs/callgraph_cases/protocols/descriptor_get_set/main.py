class Typed:
    def __get__(self, instance, owner):
        return instance.__dict__.get("value")

    def __set__(self, instance, value):
        instance.__dict__["value"] = value


class Model:
    value = Typed()


m = Model()
m.value = 3
m.value
