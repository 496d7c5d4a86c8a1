class Named:
    def label(self):
        return "n"


class Sized:
    def __init__(self):
        self.size = 0


class Box(Named, Sized):
    pass


Box().label()
