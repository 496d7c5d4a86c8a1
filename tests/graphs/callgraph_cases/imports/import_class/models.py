class User:
    def __init__(self, name):
        self.name = name

    def describe(self):
        return format_name(self.name)


def format_name(name):
    return name
