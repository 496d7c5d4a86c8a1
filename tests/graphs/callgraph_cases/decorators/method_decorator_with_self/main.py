def audited(method):
    def wrapper(self, *args):
        return method(self, *args)

    return wrapper


class Account:
    @audited
    def deposit(self, amount):
        return amount


Account().deposit(5)
