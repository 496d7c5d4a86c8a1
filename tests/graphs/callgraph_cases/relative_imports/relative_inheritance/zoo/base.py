class Animal:
    def __init__(self, name):
        self.name = name

    def describe(self):
        return self.name
