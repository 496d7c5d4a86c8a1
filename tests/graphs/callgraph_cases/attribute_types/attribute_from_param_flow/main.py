class Mailer:
    def send(self, to):
        return to


class Notifier:
    def __init__(self, transport):
        self.transport = transport

    def notify(self, user):
        return self.transport.send(user)


Notifier(Mailer()).notify("bob")
