class Color:
    def __init__(self, r, g, b):
        self.rgb = (r, g, b)

    @staticmethod
    def from_gray(level):
        return Color(level, level, level)


def brightness():
    return 128


gray = Color.from_gray(brightness())
