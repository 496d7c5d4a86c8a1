class Version:
    def __init__(self, number):
        self.number = number

    def __eq__(self, other):
        return self.number == other.number

    def __lt__(self, other):
        return self.number < other.number

    def __ge__(self, other):
        return self.number >= other.number

    def __hash__(self):
        return self.number


old = Version(1)
new = Version(2)
old == new
old < new
new >= old
