class Logger:
    def log(self, msg):
        return msg


class Job:
    def __init__(self):
        self.logger: Logger

    def attach(self, logger):
        self.logger = logger

    def run(self):
        return self.logger.log("run")


job = Job()
