"""The embedded offline backend: a rule-based designer, developer, analyst and PM.

It answers the same skills as a real model, through litellm's custom-provider hook, so the
pipeline cannot tell them apart except by the backend name it records.
"""
