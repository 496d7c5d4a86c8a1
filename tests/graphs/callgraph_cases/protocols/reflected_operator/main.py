class Money:
    def __init__(self, cents):
        self.cents = cents

    def __rmul__(self, factor):
        return Money(self.cents * factor)


total = 2 * Money(5)
