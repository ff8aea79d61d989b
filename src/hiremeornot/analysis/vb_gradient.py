"""statsmodels' binomial mixed GLM (variational Bayes) with its ELBO gradient summed once.

statsmodels' gradient (``_VariationalBayesMixedGLM.vb_elbo_grad_base``) multiplies the design
matrices at each of its ten quadrature points, building a new sparse matrix for the random
effects' sd at each; the products are linear in what each point contributes, so this sums the
points' contributions first and multiplies once. The value is statsmodels' up to rounding
(tests/test_pooled.py compares them), and a fit takes 0.4 to 0.8 of the time, the least at
few occupations (benchmarks/pooled_fit_speed.py). Imported where a fit needs it: statsmodels
loads with it.
"""

from __future__ import annotations

import numpy as np
from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM, glw

_WEIGHTS = np.array([w for w, _ in glw])
_NODES = np.array([x for _, x in glw])


class SummedGradientGLM(BinomialBayesMixedGLM):
    """BinomialBayesMixedGLM whose ELBO gradient multiplies its design matrices once."""

    @classmethod
    def from_formula(cls, formula, vc_formulas, data, vcp_p=1, fe_p=2) -> SummedGradientGLM:
        """statsmodels' model of the formulas, of this class (statsmodels' from_formula builds
        a BinomialBayesMixedGLM whatever class it is called on; this one adds a method only)."""
        model = BinomialBayesMixedGLM.from_formula(formula, vc_formulas, data, vcp_p, fe_p)
        model.__class__ = cls
        return model

    def vb_elbo_grad_base(self, h, tm, tv, fep_mean, vcp_mean, vc_mean, fep_sd, vcp_sd, vc_sd):
        """statsmodels' gradient of the ELBO (the same arguments and value)."""
        z = self.rng * _NODES
        # each quadrature point's u = h(z) phi(z), weighed: summed plainly (u), and times z
        # over the linear predictor's sd (r)
        each = [h(point) * np.exp(-(point**2) / 2) / np.sqrt(2 * np.pi) for point in z]
        u = sum(w * values for w, values in zip(_WEIGHTS, each, strict=True))
        r = sum(w * p * v for w, p, v in zip(_WEIGHTS, z, each, strict=True)) / np.sqrt(tv)
        fep_mean_grad = self.rng * np.dot(u, self.exog) + np.dot(self.endog, self.exog)
        vc_mean_grad = self.exog_vc.transpose().dot(self.rng * u + self.endog)
        fep_sd_grad = self.rng * np.dot(r, self.exog**2) * fep_sd
        vc_sd_grad = self.rng * np.squeeze(np.asarray(self.exog_vc2.transpose().dot(r))) * vc_sd
        common = self._elbo_grad_common(fep_mean, fep_sd, vcp_mean, vcp_sd, vc_mean, vc_sd)
        fep_mean_grad = fep_mean_grad + common[0]
        fep_sd_grad = fep_sd_grad + common[1] + 1 / fep_sd
        vcp_mean_grad = common[2]
        vcp_sd_grad = common[3] + 1 / vcp_sd
        vc_mean_grad = vc_mean_grad + common[4]
        vc_sd_grad = vc_sd_grad + common[5] + 1 / vc_sd
        mean_grad = np.concatenate((fep_mean_grad, vcp_mean_grad, vc_mean_grad))
        sd_grad = np.concatenate((fep_sd_grad, vcp_sd_grad, vc_sd_grad))
        return mean_grad, sd_grad
