"""The relay's configuration: flags over `TRIBUTARY_RELAY_*` over the agent's `TRIBUTARY_*` over defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from lineage_relay.config import DEFAULT_PORT, relay_config_parse


def test_flags_win_over_relay_variables_which_win_over_the_agents() -> None:
    environ = {
        "TRIBUTARY_URL": "http://agent-target:8000",
        "TRIBUTARY_RELAY_SERVER_URL": "https://lineage.example.com",
        "TRIBUTARY_TOKEN": "agent-token",
        "TRIBUTARY_SIGNING_KEY": "/keys/node.key",
        "TRIBUTARY_RELAY_PORT": "6060",
    }
    config = relay_config_parse(argv=["--port", "7070"], environ=environ)
    assert config.server_url == "https://lineage.example.com"
    assert config.token == "agent-token"
    assert config.signing_key == Path("/keys/node.key")
    assert config.port == 7070
    assert relay_config_parse(argv=[], environ=environ).port == 6060
    defaults = relay_config_parse(argv=[], environ={"TRIBUTARY_URL": "http://s", "TRIBUTARY_SIGNING_KEY": "k"})
    assert (defaults.host, defaults.port, defaults.producer_token) == ("127.0.0.1", DEFAULT_PORT, None)


@pytest.mark.parametrize(
    ("argv", "environ", "message"),
    [
        ([], {"TRIBUTARY_SIGNING_KEY": "k"}, "--server-url (or $TRIBUTARY_RELAY_SERVER_URL) is required"),
        (["--server-url", "http://s"], {}, "--signing-key (or $TRIBUTARY_RELAY_SIGNING_KEY) is required"),
        (["--max-buffer-bytes", "0"], {"TRIBUTARY_URL": "http://s", "TRIBUTARY_SIGNING_KEY": "k"}, "greater than 0"),
        ([], {"TRIBUTARY_URL": "http://s", "TRIBUTARY_SIGNING_KEY": "k", "TRIBUTARY_RELAY_PORT": "x"}, "RELAY_PORT"),
    ],
)
def test_an_unusable_configuration_exits_with_a_message(
    argv: list[str], environ: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        relay_config_parse(argv=argv, environ=environ)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
