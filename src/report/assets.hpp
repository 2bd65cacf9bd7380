#pragma once
// The page script and style sheet every report embeds (assets.cpp).
namespace sextant::report {
// Builds the page from the JSON in #sextant-data with textContent only, draws the charts with
// ECharts (SVG renderer), makes every result table sortable and filterable.
extern const char* const kPageScript;
extern const char* const kPageStyle;
}  // namespace sextant::report
