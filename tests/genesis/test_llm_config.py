"""Per-role model config: sources, precedence, file discovery, errors that name the key."""
from __future__ import annotations

import pytest

from genesis.llm.config import AGENT_ROLES, ROLES, ConfigError, load_config


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty HOME so a developer's ~/.config/genesis/config.yaml cannot leak into the tests."""
    fake_home = tmp_path / "home"
    fake_home.mkdir()
    monkeypatch.setenv("HOME", str(fake_home))
    return fake_home


def test_defaults_are_the_offline_backend_for_every_role(tmp_path, home):
    config = load_config(None, env={}, cwd=tmp_path)
    assert {config.backend_name(r) for r in ROLES} == {"offline"}
    assert config.for_role("designer").model == "genesis/offline"
    assert config.source_file is None
    assert config.summary()["vlm"]["backend"] == "offline" and config.summary()["pm"]["max_retries"] == 2


def test_global_model_targets_agent_roles_and_vlm_model_the_vlm(tmp_path, home):
    config = load_config(None, env={"GENESIS_MODEL": "openai/smollm2", "GENESIS_VLM_MODEL": "openai/llava"},
                         cwd=tmp_path)
    assert all(config.backend_name(r) == "openai/smollm2" for r in AGENT_ROLES)
    assert config.backend_name("vlm") == "openai/llava"


def test_role_specific_env_beats_global_env(tmp_path, home):
    env = {"GENESIS_MODEL": "openai/a", "GENESIS_DESIGNER_MODEL": "openai/b", "GENESIS_TIMEOUT": "33",
           "GENESIS_API_BASE": "http://h/v1"}
    config = load_config(None, env=env, cwd=tmp_path)
    assert config.for_role("designer").model == "openai/b"
    assert config.for_role("pm").model == "openai/a"
    assert config.for_role("vlm").timeout == 33.0 and config.for_role("pm").api_base == "http://h/v1"


def test_precedence_cli_over_env_over_file_over_defaults(tmp_path, home):
    (tmp_path / "genesis.yaml").write_text(
        "model: openai/file\ntimeout: 10\nmax_retries: 5\ntemperature: 0.9\n"
        "roles:\n  analyst: {model: openai/file-analyst, max_tokens: 256}\n", encoding="utf-8")
    env = {"GENESIS_MODEL": "openai/env", "GENESIS_TIMEOUT": "20"}
    config = load_config({"timeout": 30, "pm_model": "openai/cli-pm", "model": None}, env=env, cwd=tmp_path)
    pm, analyst, designer = (config.for_role(r) for r in ("pm", "analyst", "designer"))
    assert pm.model == "openai/cli-pm"              # CLI per-role
    assert designer.model == "openai/env"           # env beats file; None CLI value ignored
    assert analyst.model == "openai/env"            # a later layer's shared key beats an earlier per-role one
    assert analyst.max_tokens == 256                # file-only per-role setting survives
    assert pm.timeout == 30 and pm.max_retries == 5 and pm.temperature == 0.9
    assert config.backend_name("vlm") == "offline"  # `model` never touches the vlm role
    assert config.source_file == str(tmp_path / "genesis.yaml")


def test_config_file_lookup_order(tmp_path, home, monkeypatch):
    user_file = home / ".config" / "genesis" / "config.yaml"
    user_file.parent.mkdir(parents=True)
    user_file.write_text("model: openai/user\n", encoding="utf-8")
    assert load_config(None, env={}, cwd=tmp_path).backend_name("pm") == "openai/user"
    (tmp_path / "genesis.yaml").write_text("model: openai/cwd\n", encoding="utf-8")
    assert load_config(None, env={}, cwd=tmp_path).backend_name("pm") == "openai/cwd"
    explicit = tmp_path / "elsewhere.yaml"
    explicit.write_text("model: openai/explicit\n", encoding="utf-8")
    config = load_config(None, env={"GENESIS_CONFIG": str(explicit)}, cwd=tmp_path)
    assert config.backend_name("pm") == "openai/explicit"


@pytest.mark.parametrize("text,named", [
    ("modle: openai/x\n", "modle"),
    ("roles:\n  designer: {temprature: 0.5}\n", "roles.designer.temprature"),
    ("roles:\n  painter: {model: x}\n", "roles.painter"),
    ("timeout: soon\n", "timeout"),
    ("structured_output: xml\n", "structured_output"),
    ("roles:\n  pm: {max_retries: -1}\n", "max_retries"),
    ("- just\n- a list\n", "mapping"),
])
def test_bad_config_file_names_the_key(tmp_path, home, text, named):
    (tmp_path / "genesis.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="genesis.yaml") as info:
        load_config(None, env={}, cwd=tmp_path)
    assert named in str(info.value)


def test_bad_env_value_names_the_variable(tmp_path, home):
    with pytest.raises(ConfigError, match="GENESIS_TIMEOUT"):
        load_config(None, env={"GENESIS_TIMEOUT": "abc"}, cwd=tmp_path)


def test_unknown_cli_option_and_missing_config_path_are_errors(tmp_path, home):
    with pytest.raises(ConfigError, match="mdoel"):
        load_config({"mdoel": "x"}, env={}, cwd=tmp_path)
    with pytest.raises(ConfigError, match="GENESIS_CONFIG"):
        load_config(None, env={"GENESIS_CONFIG": str(tmp_path / "nope.yaml")}, cwd=tmp_path)


def test_unknown_role_is_rejected(tmp_path, home):
    with pytest.raises(KeyError, match="roles are"):
        load_config(None, env={}, cwd=tmp_path).for_role("critic")
