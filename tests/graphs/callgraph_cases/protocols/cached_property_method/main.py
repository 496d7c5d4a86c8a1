def expensive():
    return 42


class Report:
    @property
    def total(self):
        return expensive()

    def summary(self):
        return self.total + 1


Report().summary()
