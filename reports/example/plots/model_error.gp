# model_error: llama3-70b-serve: each system's figure with the model's error (10th-90th percentile)
# Draws model_error.svg and model_error.png from model_error.dat; run `gnuplot model_error.gp` in this folder.
do for [fmt in 'svg png'] {
	reset
	if (fmt eq 'svg') {
		set terminal svg dynamic size 960,540 font 'sans,12' background '#ffffff' noenhanced
	} else {
		set terminal pngcairo size 960,540 font 'sans,10' background '#ffffff' noenhanced
	}
	set output 'model_error.'.fmt
	set style textbox opaque noborder
	set multiplot title 'llama3-70b-serve: each system''s figure with the model''s error (10th-90th percentile)' font ',14'
	set label 132 'llama3-70b-serve | hardware as_of 2026-08-21 to 2026-08-22, prices 2024-12-01 to 2026-08-06, capex 2026-05 | roofcost 0.1.0' at screen 0.01, screen 0.018 left font ',9' tc rgb '#555555'
	# panel 1
	set lmargin at screen 0.0900; set rmargin at screen 0.7350
	set bmargin at screen 0.1400; set tmargin at screen 0.8800
	set title '' font ',11'
	set xlabel ''
	set ylabel 'USD per M output tokens'
	set grid xtics ytics lc rgb '#e4e4e4' lw 1
	set border 3 lc rgb '#444444'
	set tics nomirror out scale 0.6
	set xtics ('p5en.48xlarge' 0, 'trn2.48xlarge' 1) scale 0
	set xrange [-0.6:1.6]
	set yrange [0:*]
	set key at screen 0.7550, screen 0.8800 left top vertical Left reverse samplen 2.5 spacing 1.1 font ',10' noenhanced
	plot 'model_error.dat' index 0 using 1:2 with lines lw 2 lc rgb '#e69f00' title '', \
	     'model_error.dat' index 1 using 1:2 with points pt 7 ps 2.2 lc rgb '#e69f00' title '', \
	     'model_error.dat' index 1 using 1:2 with points pt 6 ps 2.2 lw 1.5 lc rgb '#000000' notitle, \
	     'model_error.dat' index 2 using 1:2 with lines lw 2 lc rgb '#0072b2' title '', \
	     'model_error.dat' index 3 using 1:2 with points pt 7 ps 2.2 lc rgb '#0072b2' title '', \
	     'model_error.dat' index 3 using 1:2 with points pt 6 ps 2.2 lw 1.5 lc rgb '#000000' notitle, \
	     keyentry with points pt 7 ps 1.6 lc rgb '#000000' title 'the ranking figure', \
	     keyentry with lines lw 2 lc rgb '#555555' title 'its 10th-90th percentile'
	unset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets
	set xrange [*:*]; set yrange [*:*]; set format x; set format y
	unset multiplot
	unset output
}
