class Shape:
    def describe(self):
        return self.area()


class Circle(Shape):
    def area(self):
        return 3


class Square(Shape):
    def area(self):
        return 4


class Table:
    def area(self):
        return 9


Circle().describe()
Square().describe()
Table()
