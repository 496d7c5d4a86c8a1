class Vector:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Vector(self.x + other.x)

    def __sub__(self, other):
        return Vector(self.x - other.x)

    def __mul__(self, factor):
        return Vector(self.x * factor)

    def norm(self):
        return abs(self.x)


a = Vector(1)
b = Vector(2)
(a + b).norm()
a - b
a * 3
