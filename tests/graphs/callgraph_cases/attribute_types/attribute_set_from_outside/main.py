class Sensor:
    def read(self):
        return 42


class Station:
    def __init__(self):
        self.sensor = None

    def poll(self):
        return self.sensor.read()


station = Station()
station.sensor = Sensor()
station.poll()
