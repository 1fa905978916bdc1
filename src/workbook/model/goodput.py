"""Whole-run goodput: the share of wall time a large job spends training rather than writing
checkpoints, losing work to an interruption and restarting.

Young (1974) / Daly (2006): with job MTBF ``M = 1 / (rate * n)``, checkpoint write time ``delta``
and the optimal interval ``tau = sqrt(2 delta M)``, the lost fraction is
``delta / tau + (tau / 2 + restart) / M``. Arrays in, arrays out.
"""

from __future__ import annotations

import numpy as np

#: Goodput is clipped to [GOODPUT_FLOOR, 1]: where failures are so frequent that the first-order
#: formula would give a lost fraction near or above 1, the run still gets a finite (very long) time.
GOODPUT_FLOOR = 0.05


def goodput(n_gpus, *, failure_rate_per_gpu_hour, checkpoint_hours, restart_hours):
    """Fraction of wall time doing useful training (Young 1974 / Daly 2006 optimal checkpointing).

    Parameters
    ----------
    n_gpus : array
        GPUs in the job [count].
    failure_rate_per_gpu_hour : float
        Interruptions per GPU-hour (Llama 3: 1.97e-5).
    checkpoint_hours, restart_hours : float
        Stall per checkpoint and time to recover per interruption [h].

    References
    ----------
    J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974.
    J. T. Daly, "A higher order estimate of the optimum checkpoint interval", FGCS 22(3), 2006.
    """
    mtbf = 1.0 / (failure_rate_per_gpu_hour * np.asarray(n_gpus, float))
    tau = np.sqrt(2.0 * checkpoint_hours * mtbf)
    lost = checkpoint_hours / tau + (tau / 2.0 + restart_hours) / mtbf
    return np.clip(1.0 - lost, GOODPUT_FLOOR, 1.0)
