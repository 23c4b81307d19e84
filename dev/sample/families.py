"""Templated items derived from a world's org data: HR and CRM rows, ownership and membership facts,
service configs, dashboards, deploy logs and request traces.

These carry the bulk of the corpus so the hand-written specs can focus on the stories the tests need.
Every family phrases its facts several ways (picked by the seeded RNG) so lexical search sees real variety.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date

from .spec import Customer, Person, Service, Spec, World, artifact, prop, record, trace


def _article(word: str) -> str:
    return "an" if word[0].lower() in "aeiou" else "a"


def _month_year(day: str) -> str:
    return date.fromisoformat(day).strftime("%B %Y")


def _entity_names(world: World) -> dict[str, str]:
    names = {e.local_id: e.name for e in world.teams + world.entities}
    names |= {s.local_id: s.slug for s in world.services}
    return names


def _team_name(world: World, team_slug: str) -> str:
    return next(t.name for t in world.teams if t.local_id == f"team/{team_slug}")


def people_items(world: World, rng: random.Random) -> Iterator[Spec]:
    """An HR row per person and the membership fact read from it."""
    for person in world.people:
        team = _team_name(world, person.team)
        row = f"{person.name} | {person.title} | team {team}"
        yield record(
            f"rec:hr/{person.slug}",
            f"HR record {person.employee_no} | {row} | {person.location} | start date {person.since}",
            person.local_id,
            f"team/{person.team}",
            uri=f"hr://{world.context}/employees/{person.employee_no}",
            metadata={"system": "hr"},
        )
        yield prop(
            f"p:member/{person.slug}",
            _membership_text(person, team, rng),
            person.local_id,
            f"team/{person.team}",
            grounds=((f"rec:hr/{person.slug}", row),),
            metadata={"team": person.team},
        )


def _membership_text(person: Person, team: str, rng: random.Random) -> str:
    a = _article(person.title)
    return rng.choice(
        (
            f"{person.name} works on the {team} team as {a} {person.title}.",
            f"{person.name} is {a} {person.title} in the {team} team, based in {person.location}.",
            f"{person.name} joined the {team} team as {a} {person.title} in {_month_year(person.since)}.",
        )
    )


def service_items(world: World, rng: random.Random) -> Iterator[Spec]:
    """Per service: its prod config, a dashboard, ownership and dependency facts, and two deploy rows."""
    names = _entity_names(world)
    for service in world.services:
        team = _team_name(world, service.team)
        config_key = f"art:config/{service.slug}"
        yield artifact(
            config_key,
            _config_text(world, service, team, names, rng),
            service.local_id,
            f"team/{service.team}",
            uri=f"{world.repo}/deploy/{service.slug}/prod.yaml",
            metadata={"artifact_type": "config"},
        )
        yield artifact(
            f"art:dashboard/{service.slug}",
            f'Grafana dashboard "{service.slug} - golden signals" (uid {rng.getrandbits(32):08x}) tracks '
            f"p99 latency against the {service.slo_ms} ms SLO, error rate, request rate and saturation for "
            f"{service.slug}; its alerts page the {team} on-call rotation.",
            service.local_id,
            f"team/{service.team}",
            uri=f"https://grafana.{world.context}.internal/d/{service.slug}",
            metadata={"artifact_type": "dashboard"},
        )
        yield prop(
            f"p:owns/{service.slug}",
            rng.choice(
                (
                    f"The {team} team owns {service.slug}, {service.summary}.",
                    f"{service.slug}, {service.summary}, is owned by the {team} team.",
                )
            ),
            f"team/{service.team}",
            service.local_id,
            grounds=((config_key, f"owner: team-{service.team}"),),
            metadata={"team": service.team},
        )
        for dependency, verb in service.depends_on:
            yield prop(
                f"p:dep/{service.slug}/{dependency}",
                f"{service.slug} {verb} {names[dependency]}.",
                service.local_id,
                dependency,
                grounds=((config_key, f"- {names[dependency]}"),),
                metadata={"team": service.team},
            )
        yield from _deploys(world, service, rng)


def _config_text(world: World, service: Service, team: str, names: dict[str, str], rng: random.Random) -> str:
    lines = [
        f"# {world.repo}/deploy/{service.slug}/prod.yaml",
        f"service: {service.slug}",
        f"owner: team-{service.team}  # {team} team",
        f"runtime: {service.language}",
        f"replicas: {rng.choice((2, 3, 4, 6, 8))}",
        "slo:",
        f"  p99_latency_ms: {service.slo_ms}",
        f'  availability: "{rng.choice(("99.9", "99.95", "99.99"))}"',
    ]
    if service.depends_on:
        lines.append("dependencies:")
        lines += [f"  - {names[dependency]}" for dependency, _ in service.depends_on]
    return "\n".join(lines)


def _deploys(world: World, service: Service, rng: random.Random) -> Iterator[Spec]:
    team = [p for p in world.people if p.team == service.team] or list(world.people)
    for n in (1, 2):
        deployer = rng.choice(team)
        version = f"v{rng.randint(1, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}"
        result = rng.choice(("succeeded", "succeeded", "succeeded", "rolled back after an error-rate alert"))
        yield record(
            f"rec:deploy/{service.slug}/{n}",
            f"Deploy {service.slug} {version} | by {deployer.name} | canary 5% -> 25% -> 100% | "
            f"result: {result}",
            service.local_id,
            deployer.local_id,
            uri=f"{world.repo}/actions/deploys/{service.slug}/{version}",
            metadata={"system": "deploys", "version": version},
        )


def customer_items(world: World, rng: random.Random) -> Iterator[Spec]:
    """A CRM row per customer, the account-manager fact and one usage fact per product."""
    managers = {p.slug: p for p in world.people}
    for customer in world.customers:
        manager = managers[customer.manager]
        crm_key = f"rec:crm/{customer.slug}"
        products = ", ".join(slug for slug, _ in customer.uses)
        yield record(
            crm_key,
            f"CRM account {customer.account_no} | {customer.name} | {customer.industry} | plan "
            f"{customer.plan} | ARR {customer.arr} | products: {products} | account manager "
            f"{manager.name} | renewal {customer.renewal}",
            customer.local_id,
            manager.local_id,
            *(f"service/{slug}" for slug, _ in customer.uses),
            uri=f"crm://{world.context}/accounts/{customer.account_no}",
            metadata={"system": "crm"},
        )
        yield prop(
            f"p:manager/{customer.slug}",
            rng.choice(
                (
                    f"{manager.name} is the account manager for {customer.name}.",
                    f"The {customer.name} account is managed by {manager.name}.",
                )
            ),
            manager.local_id,
            customer.local_id,
            grounds=((crm_key, f"account manager {manager.name}"),),
        )
        for slug, purpose in customer.uses:
            yield _usage(customer, slug, purpose, crm_key, rng)


def _usage(customer: Customer, slug: str, purpose: str, crm_key: str, rng: random.Random) -> Spec:
    return prop(
        f"p:uses/{customer.slug}/{slug}",
        rng.choice(
            (
                f"{customer.name} uses {slug} for {purpose}.",
                f"{customer.name} relies on {slug} for {purpose}.",
            )
        ),
        customer.local_id,
        f"service/{slug}",
        grounds=((crm_key, f"products: {', '.join(s for s, _ in customer.uses)}"),),
    )


def request_traces(world: World, rng: random.Random, count: int) -> Iterator[Spec]:
    """Distributed-tracing spans rendered as one line: the route, the outcome and per-service timings."""
    for n in range(1, count + 1):
        route, chain = rng.choice(world.call_chains)
        trace_id = f"{rng.getrandbits(128):032x}"
        timings = [rng.randint(3, 240) for _ in chain]
        failed = rng.random() < 0.2
        status = rng.choice((502, 504)) if failed else (201 if route.startswith("POST") else 200)
        hops = " -> ".join(f"{slug} {ms} ms" for slug, ms in zip(chain, timings, strict=True))
        note = f" | error: {chain[-1]} timed out" if failed else ""
        yield trace(
            f"tr:request/{n}",
            f"Request trace {trace_id} | {route} | HTTP {status} in {sum(timings)} ms | {hops}{note}",
            *(f"service/{slug}" for slug in chain),
            uri=f"xray://{world.context}/traces/{trace_id}",
            metadata={"trace_type": "request", "http_status": status},
        )
