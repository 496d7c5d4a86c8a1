class Widget:
    def __init__(self):
        self.children = []
        self.configure()

    def configure(self):
        return None


class Button(Widget):
    def __init__(self, label):
        super().__init__()
        self.label = label

    def click(self):
        return self.label


Button("ok").click()
