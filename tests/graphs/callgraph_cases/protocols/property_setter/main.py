def check(value):
    return value


class Thermometer:
    def __init__(self):
        self._celsius = 0.0

    @property
    def celsius(self):
        return self._celsius

    @celsius.setter
    def celsius(self, value):
        self._celsius = check(value)


t = Thermometer()
t.celsius = 5
reading = t.celsius
