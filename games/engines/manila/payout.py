"""Profit distribution at the end of a voyage (rulebook chapter 4)."""

from __future__ import annotations

from games.engines.base import Event, State
from games.engines.manila.data import BERTH_PAYOUTS, LOAD_PROFITS
from games.engines.manila.money import Events, pay


def _credit(state: State, seat: int, amount: int, why: str, events: Events) -> None:
    state["cash"][seat] += amount
    events.append(
        Event(f"{state['names'][seat]} receives {amount} pesos {why}.", data={"kind": "profit", "seat": seat})
    )


def pay_profits(state: State, events: Events) -> None:
    """Ware, pirate and port accomplices are paid by the cash box; then the insurance agent, who may
    take his own profits first, pays for every punt in the shipyard, borrowing if he must; whatever he
    still cannot pay comes from the cash box."""
    spaces = state["spaces"]
    boat = [seat for seat in (spaces["pirate:captain"], spaces["pirate:crew"]) if seat is not None]
    repairs: list[tuple[str, int]] = []
    for punt in state["punts"]:
        ware, berth = punt["ware"], punt["berth"]
        profit = LOAD_PROFITS[ware]
        if punt["plundered"] and boat:
            for seat in boat:
                _credit(state, seat, profit // len(boat), f"as a pirate from the {ware} load", events)
        elif berth.startswith("port"):
            sharers = [seat for seat in punt["crew"] if seat is not None]
            for seat in sharers:
                _credit(state, seat, profit // len(sharers), f"for an accomplice on the {ware} punt", events)
        payout = BERTH_PAYOUTS[berth[-1]]
        occupant = spaces[berth]
        if berth.startswith("port"):
            if occupant is not None:
                _credit(state, occupant, payout, f"from port space {berth[-1]}", events)
        else:
            repairs.append((berth, payout))
    insurer = spaces["insurance"]
    for berth, payout in repairs:
        occupant = spaces[berth]
        to_whom = state["names"][occupant] if occupant is not None else "the cash box"
        if occupant is not None:
            state["cash"][occupant] += payout
        if insurer is None:
            events.append(Event(f"The cash box pays {payout} pesos for shipyard space {berth[-1]} to {to_whom}."))
            continue
        paid = pay(state, insurer, payout, events, "to pay for repairs")
        text = f"{state['names'][insurer]}, the insurance agent, pays {paid} pesos for shipyard space {berth[-1]}"
        if paid < payout:
            text += f"; the cash box covers the other {payout - paid}"
        events.append(Event(f"{text} (to {to_whom}).", data={"kind": "repair"}))
