class Point:
    def __str__(self):
        return "point"

    def __repr__(self):
        return "Point()"


p = Point()
str(p)
repr(p)
