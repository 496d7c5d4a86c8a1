class Store:
    def save(self):
        return "stored"


class LogMixin:
    def save(self):
        return "logged " + super().save()


class Record(LogMixin, Store):
    pass


Record().save()
