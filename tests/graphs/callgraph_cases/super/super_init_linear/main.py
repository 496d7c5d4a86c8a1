class Vehicle:
    def __init__(self, wheels):
        self.wheels = wheels


class Car(Vehicle):
    def __init__(self):
        super().__init__(4)


Car()
