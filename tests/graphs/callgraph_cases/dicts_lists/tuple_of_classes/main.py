class Cat:
    def speak(self):
        return "meow"


class Cow:
    def __init__(self):
        self.spots = 3

    def speak(self):
        return "moo"


for kind in (Cat, Cow):
    kind().speak()
