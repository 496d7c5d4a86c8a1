class Parser:
    def __init__(self):
        self.depth = 0

    def feed(self, text):
        return self.tokenize(text)

    def tokenize(self, text):
        return text
