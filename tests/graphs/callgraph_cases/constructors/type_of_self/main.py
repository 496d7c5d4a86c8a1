class Money:
    def __init__(self, cents):
        self.cents = cents

    def doubled(self):
        return type(self)(self.cents * 2)

    def copy(self):
        return self.__class__(self.cents)


Money(1).doubled().copy()
