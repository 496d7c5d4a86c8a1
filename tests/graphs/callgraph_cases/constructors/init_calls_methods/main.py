def default_port():
    return 80


class Server:
    def __init__(self, host):
        self.host = host
        self.port = default_port()
        self.bind()

    def bind(self):
        return (self.host, self.port)


def start():
    return Server("localhost")


start()
