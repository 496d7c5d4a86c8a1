def normalize(text):
    return text


class Formatter:
    clean = lambda self, text: normalize(text)

    def format(self, text):
        return self.clean(text)


Formatter().format("x")
