class Shape:
    def area(self):
        return 0

    def label(self):
        return "shape"


class Square(Shape):
    def area(self):
        return 4


def use_square():
    return Square().area()


def use_shape():
    return Shape().area()


use_square()
use_shape()
Square().label()
