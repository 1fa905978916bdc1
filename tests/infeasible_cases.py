"""Infeasible scenarios shared by the remedies' tests and the memo's."""

#: 70B on 2T tokens in 60 days for $2M, a five-person team with no platform engineer. The
#: remedies were told in the order tried, so the headline read "2 platform engineers, and the pick
#: is ... AMD Instinct MI355X ... at an estimated price. Or: a team with ROCm experience" (the same
#: pick), and a budget 15 % up for B200 at a published price came fourth.
NO_PLATFORM_TEAM = dict(
    n_params=70e9,
    n_tokens=2e12,
    deadline_days=60,
    budget_usd=2e6,
    site_power_kw=2000,
    team_size=5,
    platform_engineers=0,
)
