class Widget:
    def __init__(self):
        self.setup()

    def setup(self):
        return "widget"


class Button(Widget):
    def setup(self):
        return "button"


Widget()
Button()
