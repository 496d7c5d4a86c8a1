class Engine:
    def start(self):
        return 1


class Car:
    @property
    def engine(self):
        return Engine()


Car().engine.start()
