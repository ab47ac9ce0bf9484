# Job A: a private strategy holding a secret (MARKER is set by the test).
SECRET = MARKER


def strategy_config():
    return {"holds": SECRET}
