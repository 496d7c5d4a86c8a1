class Engine:
    def __init__(self):
        self.on = False

    def start(self):
        return "vroom"


class Car:
    def __init__(self):
        self.engine = Engine()

    def drive(self):
        return self.engine.start()


Car().drive()
