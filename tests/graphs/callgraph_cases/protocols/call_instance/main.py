class Multiplier:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, value):
        return value * self.factor


class Pipeline:
    def __init__(self):
        self.step = Multiplier(2)

    def run(self, value):
        return self.step(value)


triple = Multiplier(3)
triple(4)
Pipeline().run(5)
