def on_click():
    return "clicked"


class Button:
    def __init__(self, handler):
        self.handler = handler

    def press(self):
        return self.handler()


Button(on_click).press()
