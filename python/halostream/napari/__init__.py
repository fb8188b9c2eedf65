"""halostream's napari plugin (npe2; napari.yaml beside this file is its manifest, which the
package's `napari.manifest` entry point names): dock widgets for eSRRF, the parameter sweep and
the quality metrics, and the shipped sample stack under File > Open Sample > halostream.

Installed with the package's `napari` extra (pip install "./python[napari]"); the core package
never imports this subpackage, Qt or napari. Importing halostream.napari itself imports nothing
either: napari reads the manifest and imports _widgets / _sample when a widget or the sample is
opened.

    Plugins > halostream > eSRRF             halostream.esrrf on an image layer
    Plugins > halostream > eSRRF sweep       radii x sensitivities, the QnR heat map, the best image
    Plugins > halostream > eSRRF quality     error map (RSE, RSP), FRC and decorrelation resolution

Every run is on a worker thread (the viewer stays responsive), with a progress bar that advances
as the library reports each block and a Cancel button that stops the run through the library's
cancel path (the progress callable answers "cancel"); a cancelled run adds no layer. Errors
(the library's HalostreamError, refused arguments) become napari notifications carrying the
library's message. Result layers overlay their input: _layers.py says how scale and translate
follow esrrf.h's pixel-centre convention."""
