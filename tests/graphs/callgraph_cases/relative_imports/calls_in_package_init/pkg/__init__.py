from . import setup_tasks as tasks
from .setup_tasks import prepare

prepare()
tasks.finalize()
