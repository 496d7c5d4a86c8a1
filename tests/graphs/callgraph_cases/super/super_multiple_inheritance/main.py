class Engine:
    def __init__(self):
        self.running = False


class Radio:
    def __init__(self):
        self.station = 0


class Dashboard:
    def status(self):
        return "ok"


class Car(Dashboard, Engine, Radio):
    def __init__(self):
        super().__init__()

    def status(self):
        return super().status()


car = Car()
car.status()
