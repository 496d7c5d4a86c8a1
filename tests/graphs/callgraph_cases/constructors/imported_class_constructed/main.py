import shapes


def build():
    return shapes.Rect(2, 3)


build().area()
