def record(value):
    return value


class Plugin:
    def fire(self, event):
        return self.hook(event)


class Audit(Plugin):
    def hook(self, event):
        return record(event)


Audit().fire("start")
