class Handler:
    def handle(self, text):
        return self.parse(text)
