class Fast:
    def __init__(self):
        self.speed = 10

    def go(self):
        return self.speed


def strategy():
    return Fast


cls = strategy()
runner = cls()
runner.go()
