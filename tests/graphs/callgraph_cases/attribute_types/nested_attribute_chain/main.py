class Wheel:
    def __init__(self):
        self.pressure = 30

    def inflate(self):
        return self.pressure + 1


class Axle:
    def __init__(self):
        self.wheel = Wheel()


class Truck:
    def __init__(self):
        self.axle = Axle()

    def service(self):
        return self.axle.wheel.inflate()


Truck().service()
