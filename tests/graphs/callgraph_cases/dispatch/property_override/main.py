class Shape:
    def describe(self):
        return "area " + str(self.area)


class Circle(Shape):
    @property
    def area(self):
        return 3


class Square(Shape):
    @property
    def area(self):
        return 4


Circle().describe()
Square().describe()
