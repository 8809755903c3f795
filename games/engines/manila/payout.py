"""Profit distribution at the end of a voyage (rulebook chapter 4)."""

from __future__ import annotations

from games.engines.base import Event, M, Mp, Msg, State
from games.engines.manila.data import BERTH_PAYOUTS, LOAD_PROFITS, seat_colour, ware_name
from games.engines.manila.money import Events, pay


def _credit(state: State, seat: int, amount: int, why: Msg, events: Events) -> None:
    state["cash"][seat] += amount
    events.append(
        Event(
            M("{seat} receives {amount} pesos {why}.", seat=seat_colour(state, seat), amount=amount, why=why),
            data={"kind": "profit", "seat": seat},
        )
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
                why = Mp("manila profit", "as a pirate from the {ware} load", ware=ware_name(ware))
                _credit(state, seat, profit // len(boat), why, events)
        elif berth.startswith("port"):
            sharers = [seat for seat in punt["crew"] if seat is not None]
            for seat in sharers:
                why = Mp("manila profit", "for an accomplice on the {ware} punt", ware=ware_name(ware))
                _credit(state, seat, profit // len(sharers), why, events)
        payout = BERTH_PAYOUTS[berth[-1]]
        occupant = spaces[berth]
        if berth.startswith("port"):
            if occupant is not None:
                _credit(
                    state, occupant, payout, Mp("manila profit", "from port space {berth}", berth=berth[-1]), events
                )
        else:
            repairs.append((berth, payout))
    insurer = spaces["insurance"]
    for berth, payout in repairs:
        occupant = spaces[berth]
        to_whom = seat_colour(state, occupant) if occupant is not None else Mp("manila", "the cash box")
        if occupant is not None:
            state["cash"][occupant] += payout
        if insurer is None:
            events.append(
                Event(
                    M(
                        "The cash box pays {amount} pesos for shipyard space {berth} to {to}.",
                        amount=payout,
                        berth=berth[-1],
                        to=to_whom,
                    )
                )
            )
            continue
        paid = pay(state, insurer, payout, events, Mp("manila loan", "to pay for repairs"))
        said = {"seat": seat_colour(state, insurer), "paid": paid, "berth": berth[-1], "to": to_whom}
        if paid < payout:
            text = M(
                "{seat}, the insurance agent, pays {paid} pesos for shipyard space {berth}; the cash box covers the "
                "other {rest} (to {to}).",
                rest=payout - paid,
                **said,
            )
        else:
            text = M("{seat}, the insurance agent, pays {paid} pesos for shipyard space {berth} (to {to}).", **said)
        events.append(Event(text, data={"kind": "repair"}))
