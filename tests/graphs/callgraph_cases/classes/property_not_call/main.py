def compute_area(w, h):
    return w * h


class Rectangle:
    def __init__(self, w, h):
        self.w = w
        self.h = h

    @property
    def area(self):
        return compute_area(self.w, self.h)

    def describe(self):
        return self.area


r = Rectangle(2, 3)
value = r.area
r.describe()
