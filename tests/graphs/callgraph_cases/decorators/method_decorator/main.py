def audit(fn):
    def wrapper(self, *args):
        record(fn.__name__)
        return fn(self, *args)

    return wrapper


def record(name):
    return name


class Account:
    def __init__(self):
        self.balance = 0

    @audit
    def deposit(self, amount):
        self.balance += amount
        return self.balance


Account().deposit(5)
