from pkg.api import handle

handle(1)
