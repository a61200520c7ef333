# serving_cost_curve: llama3-70b-serve: USD per M output tokens against speed per user (on-demand)
# Draws serving_cost_curve.svg and serving_cost_curve.png from serving_cost_curve.dat; run `gnuplot serving_cost_curve.gp` in this folder.
do for [fmt in 'svg png'] {
	reset
	if (fmt eq 'svg') {
		set terminal svg dynamic size 960,540 font 'sans,12' background '#ffffff' noenhanced
	} else {
		set terminal pngcairo size 960,540 font 'sans,10' background '#ffffff' noenhanced
	}
	set output 'serving_cost_curve.'.fmt
	set style textbox opaque noborder
	set multiplot title 'llama3-70b-serve: USD per M output tokens against speed per user (on-demand)' font ',14'
	set label 132 'llama3-70b-serve | hardware as_of 2026-08-21 to 2026-08-22, prices 2024-12-01 to 2026-08-06, capex 2026-05 | roofcost 0.1.0' at screen 0.01, screen 0.018 left font ',9' tc rgb '#555555'
	# panel 1
	set lmargin at screen 0.0900; set rmargin at screen 0.7350
	set bmargin at screen 0.1400; set tmargin at screen 0.8800
	set title '' font ',11'
	set xlabel 'output tokens/s per user (1 / TPOT)'
	set ylabel 'USD per M output tokens (on-demand)'
	set grid xtics ytics lc rgb '#e4e4e4' lw 1
	set border 3 lc rgb '#444444'
	set tics nomirror out scale 0.6
	set logscale y 10
	set format y '%g'
	set yrange [1.81818:1014.57]
	set ytics (2, 5, 10, 20, 50, 100, 200, 500, 1000)
	set key at screen 0.7550, screen 0.8800 left top vertical Left reverse samplen 2.5 spacing 1.1 font ',10' noenhanced
	set arrow 1 from first 20, graph 0 to first 20, graph 1 nohead dt (5,4) lw 1.5 lc rgb '#333333' front
	set label 1 'TPOT limit 50 ms' at first 20, graph 0.03 offset character 0.6, 0 left font ',9' tc rgb '#333333' front
	set label 100 'tp2 pp4' at first 13.30169992, first 3.4753378 offset character -0.5, 0.7 right font ',8' tc rgb '#e69f00' front
	set label 101 'tp2' at first 13.19473263, first 3.398222483 offset character 0.5, -0.7 left font ',8' tc rgb '#e69f00' front
	set label 104 'tp8' at first 105.3995948, first 26.72634365 offset character 0.5, -0.7 left font ',8' tc rgb '#e69f00' front
	set label 105 'tp1 pp4' at first 3.892597107, first 5.521190248 offset character 0.5, -0.7 left font ',8' tc rgb '#0072b2' front
	set label 108 'tp2' at first 10.91211797, first 9.020620632 offset character 0.5, -0.7 left font ',8' tc rgb '#0072b2' front
	set label 109 'tp4 pp2' at first 9.030579565, first 7.97172534 offset character -0.5, 0.7 right font ',8' tc rgb '#0072b2' front
	set label 111 'tp8 pp2' at first 29.34454617, first 15.90513404 offset character 0.5, -0.7 left font ',8' tc rgb '#0072b2' front
	set label 112 'tp8' at first 29.71762249, first 15.93989172 offset character -0.5, 0.7 right font ',8' tc rgb '#0072b2' front
	set label 113 'tp16 pp2' at first 56.02749202, first 143.4819565 offset character 0.5, -0.7 left font ',8' tc rgb '#0072b2' front
	set label 114 'tp16' at first 54.97206079, first 101.7240293 offset character 0.5, -0.7 left font ',8' tc rgb '#0072b2' front
	plot 'serving_cost_curve.dat' index 0 using 1:2 with linespoints lw 2 dt 1 pt 5 ps 0.55 lc rgb '#e69f00' title 'p5en.48xlarge', \
	     'serving_cost_curve.dat' index 1 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.55 lc rgb '#0072b2' title 'trn2.48xlarge', \
	     'serving_cost_curve.dat' index 2 using 1:2 with points pt 7 ps 2.2 lc rgb '#e69f00' title '', \
	     'serving_cost_curve.dat' index 2 using 1:2 with points pt 6 ps 2.2 lw 1.5 lc rgb '#000000' notitle, \
	     'serving_cost_curve.dat' index 3 using 1:2 with points pt 7 ps 2.2 lc rgb '#0072b2' title '', \
	     'serving_cost_curve.dat' index 3 using 1:2 with points pt 6 ps 2.2 lw 1.5 lc rgb '#000000' notitle, \
	     keyentry with points pt 7 ps 1.6 lc rgb '#000000' title 'the pick at the latency limits'
	unset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets
	set xrange [*:*]; set yrange [*:*]; set format x; set format y
	unset multiplot
	unset output
}
